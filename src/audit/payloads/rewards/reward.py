import os
os.makedirs('@LOGS@', exist_ok=True)
open('@LOGS@/reward.txt', 'w').write('1\n')
open('@LOGS@/reward.json', 'w').write('{"reward": 1.0}\n')
