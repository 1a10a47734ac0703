echo start >> trace
