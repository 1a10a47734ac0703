# where this runs: a local-cloud host's marker names its host, this machine has none
case "${LAGUNA_CLOUD_HOST:-}" in
  *:tosca_vm:*) export WHERE=tosca_vm ;;
  *:tosca_solo:*) export WHERE=tosca_solo ;;
  "") export WHERE="this machine" ;;
  *) export WHERE="another host" ;;
esac
