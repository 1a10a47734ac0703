export SAID="$greeting from a CSAR"
