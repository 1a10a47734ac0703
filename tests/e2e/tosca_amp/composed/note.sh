echo configured >> trace
