# where this operation ran: its label, HOME, directory, host marker and each ancestor
# process (pids as this machine's /proc numbers them: the host may have a pid namespace
# of its own, where $$ would be another number)
out="$HOME/where.txt"
{ echo "label $label"; echo "home $HOME"; echo "pwd $(pwd)"
  echo "marker $LAGUNA_CLOUD_HOST"; } > "$out"
read -r stat < /proc/self/stat
p=${stat%% *}
while [ "$p" -gt 1 ] && read -r stat < "/proc/$p/stat"; do
  echo "ancestor $p $(tr '\0' ' ' < "/proc/$p/cmdline")" >> "$out"
  rest=${stat##*) }
  rest=${rest#* }
  p=${rest%% *}
done
export WHERE_HOME="$HOME"
