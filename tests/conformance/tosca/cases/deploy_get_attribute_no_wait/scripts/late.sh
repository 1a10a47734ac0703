sleep 0.3; export TOKEN=late
