echo deleted >> deletes
