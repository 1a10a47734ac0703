echo half-way
exit 4
