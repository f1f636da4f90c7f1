{{- define "routesync.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "routesync.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "routesync.serviceAccountName" -}}
{{- default (include "routesync.fullname" .) .Values.serviceAccount.name }}
{{- end }}

{{/* Selects the agent's pods: the DaemonSet, the NetworkPolicy and the PodMonitor use it. */}}
{{- define "routesync.selectorLabels" -}}
app.kubernetes.io/name: {{ include "routesync.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "routesync.labels" -}}
{{ include "routesync.selectorLabels" . }}
app.kubernetes.io/part-of: routesync
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "routesync.socketPath" -}}
{{- printf "%s/routesync.sock" (trimSuffix "/" .Values.socketDir) }}
{{- end }}

{{- define "routesync.stateFile" -}}
{{- printf "%s/table.bin" (trimSuffix "/" .Values.stateDir) }}
{{- end }}

{{/* The ConfigMap's data: the named values, then `config` (which may override none of them). */}}
{{- define "routesync.configData" -}}
{{- $named := dict
  "ROUTESYNC_LABEL_SELECTOR" .Values.labelSelector
  "ROUTESYNC_NAMESPACE" .Values.watchNamespaces
  "ROUTESYNC_SOURCE" .Values.source
  "ROUTESYNC_SOCKET" (include "routesync.socketPath" .)
  "ROUTESYNC_STATE_FILE" (include "routesync.stateFile" .)
  "ROUTESYNC_ADMIN_PORT" (toString .Values.adminPort) }}
{{- range $key, $value := .Values.config }}
{{- if hasKey $named $key }}
{{- fail (printf "config.%s: set it with its named value instead (see values.yaml)" $key) }}
{{- end }}
{{- if not (hasPrefix "ROUTESYNC_" $key) }}
{{- fail (printf "config.%s: the agent reads only ROUTESYNC_* variables; use extraEnv for others" $key) }}
{{- end }}
{{- end }}
{{- $all := merge (dict) $named .Values.config }}
{{- range $key := keys $all | sortAlpha }}
{{ $key }}: {{ get $all $key | toString | quote }}
{{- end }}
{{- end }}

{{/*
The heap for `sizing.endpoints`, in MiB: docs/install.md's formula,
max(96, 2 × (21 + ceil(endpoints × 100 B / MiB))).
*/}}
{{- define "routesync.heapMiB" -}}
{{- $endpoints := int64 .Values.sizing.endpoints }}
{{- if lt $endpoints 0 }}
{{- fail (printf "sizing.endpoints: %d is negative" $endpoints) }}
{{- end }}
{{- $perEndpoint := div (add (mul $endpoints 100) 1048575) 1048576 }}
{{- max 96 (mul 2 (add 21 $perEndpoint)) }}
{{- end }}

{{/*
The memory request and limit: the heap, the 160 MiB the non-heap caps take, and a tenth of the heap
above 96 MiB (the 5% margin grows with the limit).
*/}}
{{- define "routesync.memory" -}}
{{- $heap := int64 (include "routesync.heapMiB" .) }}
{{- printf "%dMi" (add $heap 160 (div (sub $heap 96) 10)) }}
{{- end }}

{{/*
The image's JAVA_TOOL_OPTIONS (the Dockerfile's; HelmChartTest holds them equal) with the heap for
`sizing.endpoints`.
*/}}
{{- define "routesync.javaToolOptions" -}}
{{- $heap := include "routesync.heapMiB" . }}
{{- printf "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xms%sm -Xmx%sm -XX:MaxMetaspaceSize=80m -XX:ReservedCodeCacheSize=32m -XX:MaxDirectMemorySize=16m -Xss512k -XX:ActiveProcessorCount=2 -XX:TrimNativeHeapInterval=5000 -XX:+ExitOnOutOfMemoryError" $heap $heap }}
{{- end }}
