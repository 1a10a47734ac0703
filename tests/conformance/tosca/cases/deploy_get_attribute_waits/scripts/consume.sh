export GOT="$t/$o/$d"
