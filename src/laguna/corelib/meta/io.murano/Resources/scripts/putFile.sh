#!/bin/sh
# Moves the plan's file destinationFile to the path given as $1.
set -e
target="$1"
mv "$(readlink -f destinationFile)" "$target"
