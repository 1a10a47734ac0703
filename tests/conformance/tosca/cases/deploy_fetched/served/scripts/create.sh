. "$(dirname "$0")/lib.sh"
export GREETING="$(greet "$NAME")"
