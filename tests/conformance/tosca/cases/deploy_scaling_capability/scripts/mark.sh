# a file per instance (its tosca_id less the deploy's prefix): each instance
# runs its own lifecycle with its own id
echo "$op" >> "life-${id#*-}"
