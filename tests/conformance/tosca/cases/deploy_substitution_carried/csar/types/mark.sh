echo "$WORD" >> trace
