kill "$(cat "svc.$id.pid" 2>/dev/null)" 2>/dev/null
rm -f "svc.$id.pid"
echo "svc $id stopped"
