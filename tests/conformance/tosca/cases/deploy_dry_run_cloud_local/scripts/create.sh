. "$(dirname "$0")/lib.sh"
export WHERE="$addr:$(pwd)"
