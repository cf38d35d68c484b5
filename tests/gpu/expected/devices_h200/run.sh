#!/bin/sh
# One GPU session for cudoctor devices (driver helper). Writes everything under $OUT.
here=$(cd "$(dirname "$0")" && pwd)
B=$here/cudoctor
O=${OUT:-/tmp/out}
mkdir -p "$O"
nvidia-smi -L > "$O/nvidia-smi-L.txt" 2>&1
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,compute_cap,memory.total,driver_version,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,persistence_mode,mig.mode.current,ecc.mode.current,power.draw,power.limit,temperature.gpu,clocks.sm,clocks.max.sm,clocks.max.memory,clocks_event_reasons.active,retired_pages.pending,compute_mode,pstate --format=csv > "$O/nvidia-smi-query.csv" 2>&1
"$B" --color=never devices > "$O/devices.txt" 2>&1; echo "exit=$?" >> "$O/devices.txt"
"$B" --json devices > "$O/devices.json" 2> "$O/devices.json.stderr"; echo "exit=$?" >> "$O/devices.json.stderr"
CUDA_VISIBLE_DEVICES= "$B" --color=never devices > "$O/devices_cvd_empty.txt" 2>&1; echo "exit=$?" >> "$O/devices_cvd_empty.txt"
CUDA_VISIBLE_DEVICES=7 "$B" --color=never devices > "$O/devices_cvd_7.txt" 2>&1; echo "exit=$?" >> "$O/devices_cvd_7.txt"
CUDOCTOR_LIBCUDA=/nonexistent/libcuda.so.1 "$B" --color=never devices > "$O/devices_no_driver.txt" 2>&1; echo "exit=$?" >> "$O/devices_no_driver.txt"
LD_LIBRARY_PATH=$here ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$here/cudoctor-asan" --json devices > "$O/asan_devices.json" 2> "$O/asan_devices.stderr"; echo "exit=$?" >> "$O/asan_devices.stderr"
python3 -c "import subprocess,sys,time
for i in range(3):
    t=time.time(); subprocess.run([sys.argv[1],'devices'],capture_output=True); print('cudoctor devices: %.3f s wall' % (time.time()-t))" "$B" > "$O/devices_time.txt" 2>&1
python3 "$here/compare_devices.py" "$B" > "$O/compare_devices.txt" 2>&1; echo "exit=$?" >> "$O/compare_devices.txt"
tail -n 3 "$O/compare_devices.txt"; head -n 40 "$O/devices.txt"; cat "$O/devices_time.txt" "$O/asan_devices.stderr"
