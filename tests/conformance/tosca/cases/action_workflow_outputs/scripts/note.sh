echo "$mark" >> trace
export VERSION="v-$mark"
