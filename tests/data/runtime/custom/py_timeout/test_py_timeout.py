# Never finishes but keeps printing (a slow compile): only the wall-clock timeout stops it.
import sys
import time

while True:
    print("[pypto_pro] compiling ...", flush=True)
    time.sleep(0.1)
