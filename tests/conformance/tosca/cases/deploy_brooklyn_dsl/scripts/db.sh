# the host is published a moment after start begins: the reader waits for it
sleep 0.3
export HOST=db.example
