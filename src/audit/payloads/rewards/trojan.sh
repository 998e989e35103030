#!/bin/sh
@WIN@
exit 0
