echo "$mark" >> trace
