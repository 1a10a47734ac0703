sleep 0.5
touch db.started
export PORT=5432
