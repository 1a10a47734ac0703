sleep 0.5
touch db.created
export HOST=db.internal
