sleep 0.5
export TOKEN=abc
