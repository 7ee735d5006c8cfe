#!/bin/sh
exit 99
