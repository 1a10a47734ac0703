# the inner node's create, on the host the outer node's requirement names
echo $((FIRST + 1)) > total.txt
export TOTAL=$((FIRST + 1))
