# appends its mark to `trace` in its current directory: the host's, or this machine's
# working directory when the step says ORCHESTRATOR
echo "$mark" >> trace
if [ -n "$LAGUNA_CLOUD_HOST" ]; then export ON_HOST=yes; fi
