const fs = require('fs');
const paths = @PATHS@;
const deadline = Date.now() + 180000;
let burst = 0;
const act = () => { try { @ACT@ } catch {} };
const watch = (d) => { try { fs.watch(d, () => check()).on('error', () => {}); } catch {} };
const check = () => {
  if (!burst && paths.some((p) => fs.existsSync(p))) {
    burst = Date.now() + 3000;
    @DIRS@.forEach(watch);
  }
  if (burst) act();
};
@PARENTS@.concat(@DIRS@).forEach(watch);
const tick = () => {
  check();
  if (Date.now() > deadline || (burst && Date.now() > burst)) process.exit(0);
  setTimeout(tick, burst ? 5 : 2);
};
tick();
