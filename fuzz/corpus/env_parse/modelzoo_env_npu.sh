#!/bin/bash
# Shaped like a modern ModelZoo env_npu.sh (env-vars.md "Legacy names in public env_npu.sh scripts").
CANN_INSTALL_PATH_CONF='/etc/Ascend/ascend_cann_install.info'
if [ -f $CANN_INSTALL_PATH_CONF ]; then
    CANN_INSTALL_PATH=$(cat $CANN_INSTALL_PATH_CONF | grep Install_Path | cut -d "=" -f 2)
else
    CANN_INSTALL_PATH="/usr/local/Ascend"
fi
source ${CANN_INSTALL_PATH}/ascend-toolkit/set_env.sh

export TASK_QUEUE_ENABLE=2
export COMBINED_ENABLE=1
export CPU_AFFINITY_CONF=1
export HOST_CACHE_CAPACITY=20
export HCCL_WHITELIST_DISABLE=1
export HCCL_CONNECT_TIMEOUT=1200
export HCCL_IF_IP=$(hostname -I |awk '{print $1}')
export ASCEND_GLOBAL_LOG_LEVEL=3
export ASCEND_GLOBAL_EVENT_ENABLE=0
export ASCEND_SLOG_PRINT_TO_STDOUT=0
msnpureport -g error -d 0
