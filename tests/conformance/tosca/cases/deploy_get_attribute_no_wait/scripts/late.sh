sleep 1; export TOKEN=late
