export LIB=loaded
