export SEEN="OP=$OP A=$A B=$B C=$C D=$D"
