# one line per operation in the file of the instance (its tosca_id less the prefix)
echo "$op" >> "ops-${id#*-}"
