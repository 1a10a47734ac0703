echo stopped >> stops
