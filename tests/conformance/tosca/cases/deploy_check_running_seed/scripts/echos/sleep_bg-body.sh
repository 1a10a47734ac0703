set -e
sleep ${sleep_duration_0}
date > big_sleep_active
sleep ${sleep_duration_1}
rm big_sleep_active
