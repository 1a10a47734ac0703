mkdir -p "daemons"
