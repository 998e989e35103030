# The agent's image: public base images and Debian packages only, so any harness builds it.
FROM @BASE_IMAGE@
# A fact-checker's tools: pdftotext (poppler, with poppler-data for CJK fonts, as the labels were made), curl
# and CA certificates; Node.js comes with the base image.
@IF APT_PINNED@
# The versions export --apt-version pinned: the same pdftotext as the labels, or the build fails.
@END APT_PINNED@
RUN apt-get update \
 && apt-get install -y --no-install-recommends @APT_PACKAGES@ \
 && rm -rf /var/lib/apt/lists/*
# The agent's user (task.toml's [agent] user) owns /app and /logs/agent. /app is open to any user but sticky,
# so that a harness that runs the agent as a user of its own (Novita's `user`) can still write the answers there.
# /logs/verifier is root's, writable by anyone but sticky (as /tmp is), so the agent can neither make it
# read-only nor remove what the verifier writes there.
RUN useradd --create-home --uid @AGENT_UID@ @AGENT_USER@ \
 && mkdir -p @APP_PATH@ @AGENT_LOGS_PATH@ @VERIFIER_LOGS_PATH@ \
 && chown @AGENT_USER@:@AGENT_USER@ @APP_PATH@ @AGENT_LOGS_PATH@ \
 && chmod 1777 @APP_PATH@ @VERIFIER_LOGS_PATH@
@IF MCP@
# quotecheck, given on purpose (this variant measures tool use): the self-contained build, and its MCP server on PATH.
COPY @SHIPPED_FOLDER@ @TOOL_DIR@
RUN ln -s @TOOL_DIR@/@TOOL_CLI@ /usr/local/bin/@MCP_COMMAND@ \
 && @MCP_COMMAND@ @MCP_SUBCOMMAND@ --help > /dev/null
@END MCP@
@IF ARCHIVE@
# A plain WARC reader for the recorded sources (every response body as a file); it labels nothing.
COPY @WARC_READER_FILE@ /usr/local/lib/@WARC_READER_FILE@
RUN ln -s /usr/local/lib/@WARC_READER_FILE@ /usr/local/bin/@WARC_READER_COMMAND@
@END ARCHIVE@
@IF FROZEN_TOOL@
# A frozen edition: the quotecheck given reads the task's archive (its MCP server is also told so by --replay), not the live web.
ENV @REPLAY_ENV@=@APP_PATH@/@TASK_ARCHIVE@
@END FROZEN_TOOL@
@IF SKILL@
@IF SKILL_COMMENT@
# The skill folder Harbor's [environment] skills_dir names (quotecheck inside it); the harness copies it to the agent's skills.
@END SKILL_COMMENT@
@COPY_SKILLS_LINE@
@END SKILL@
WORKDIR @APP_PATH@
COPY claims.json @APP_PATH@/claims.json
@IF ARCHIVE@
COPY @TASK_ARCHIVE@ @APP_PATH@/@TASK_ARCHIVE@
@END ARCHIVE@
