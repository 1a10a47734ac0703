# runs on this machine, in the working directory, the workflow's inputs exported
echo "to $to" >> trace
export DONE="yes-$to"
