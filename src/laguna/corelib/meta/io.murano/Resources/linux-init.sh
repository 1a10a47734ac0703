#!/bin/sh
# Boot script of a LinuxMuranoInstance: writes the agent's configuration.
mkdir -p /etc/murano
cat > /etc/murano/agent.conf <<'LAGUNA_AGENT_CONFIG'
%AGENT_CONFIG%
LAGUNA_AGENT_CONFIG
chmod 664 /etc/murano/agent.conf
hostname '%INTERNAL_HOSTNAME%' || true
