# fails while the working directory holds fail-NAME (a test's switch)
if [ -e "fail-$NAME" ]; then echo "$NAME: told to fail"; exit 3; fi
