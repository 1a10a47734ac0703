sleep 0.3; echo t1 > token; export TOKEN=t1
