export GOT="[$t]"
