export V=zipped
