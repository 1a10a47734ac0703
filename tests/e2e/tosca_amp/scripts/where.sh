# where this runs: the marker only a local-cloud host's agent gives its scripts
export HOST_MARKER="${LAGUNA_CLOUD_HOST:-none}"
export HOME_DIR="$HOME"
