# where get_artifact says the artifacts are, and what they hold there
export CONF_AT="${conf#"$PWD"/}" CONF="$(cat "$conf")"
export DATA_AT="$data" DATA="$(cat "$data")"
