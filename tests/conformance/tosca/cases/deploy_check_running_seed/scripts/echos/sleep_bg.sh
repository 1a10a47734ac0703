# operations run in the working directory; dependencies sit beside the primary ($0)
nohup sh "$(dirname "$0")/sleep_bg-body.sh" > sleep.stdout 2> sleep.stderr &
echo $! > sleep.pid
