echo stop >> trace
