# The verifier's own image (task.toml: [verifier] environment_mode = "separate"). Harbor builds it from this folder
# (tests/) and, once the agent's container has stopped, runs /tests/test.sh in it as root; the only file of the agent's
# container it gets is /app/answers.json (task.toml's artifacts), put back at that same path.
# The agent's public base image (Node.js 20 on Debian 12): the grader needs Node.js and nothing else, and the layers are shared.
FROM @BASE_IMAGE@
# The verifier: test.sh, its grader (Node's own modules only) and the gold labels, at /tests where Harbor runs test.sh.
COPY test.sh @GRADER_FILE@ gold.json @TESTS_PATH@/
# Root's alone, as root runs them: the folder and test.sh 0700 (test.sh run by its path), the grader and the gold 0600.
RUN chown -R root:root @TESTS_PATH@ \
 && chmod 0700 @TESTS_PATH@ @TESTS_PATH@/test.sh \
 && chmod 0600 @TESTS_PATH@/@GRADER_FILE@ @TESTS_PATH@/gold.json
# Where the answers are put back and where test.sh looks for them (/app/answers.json), as in the agent's container.
WORKDIR @APP_PATH@
