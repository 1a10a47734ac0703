greet() { echo "hello $1 from a fetched script"; }
