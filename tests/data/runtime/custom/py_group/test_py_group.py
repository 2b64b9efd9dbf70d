# Starts a helper process in the same process group, records its pid, then hangs: the
# launcher must kill the whole group, the helper included.
import os
import subprocess
import time

helper = subprocess.Popen(["sleep", "300"])
with open(os.environ["HELPER_PID_FILE"], "w") as f:
    f.write(str(helper.pid))
print("helper started", flush=True)
time.sleep(300)
