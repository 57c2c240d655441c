{{/* Names and labels, as `helm create` makes them. */}}
{{- define "catalogue-api.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "catalogue-api.fullname" -}}
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

{{- define "catalogue-api.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "catalogue-api.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "catalogue-api.selectorLabels" -}}
app.kubernetes.io/name: {{ include "catalogue-api.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "catalogue-api.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The Secret holding the secret settings: the operator's own, or the chart's. */}}
{{- define "catalogue-api.secretName" -}}
{{- .Values.existingSecret | default (include "catalogue-api.fullname" .) }}
{{- end }}

{{/* The port the API listens on: PORT from the ConfigMap, the container port, the probes' port. */}}
{{- define "catalogue-api.port" -}}
{{- required "config.PORT is required: the container port and the probes follow it" .Values.config.PORT }}
{{- end }}

{{/*
terminationGracePeriodSeconds, derived: the preStop sleep, then the API's own
drain deadline (SHUTDOWN_TIMEOUT_MS, rounded up to whole seconds), then a margin
for the process to exit. SHUTDOWN_TIMEOUT_MS=0 (no deadline) cannot be bounded.
*/}}
{{- define "catalogue-api.terminationGracePeriodSeconds" -}}
{{- $ms := int (required "config.SHUTDOWN_TIMEOUT_MS is required: terminationGracePeriodSeconds is derived from it" .Values.config.SHUTDOWN_TIMEOUT_MS) }}
{{- if le $ms 0 }}{{ fail "config.SHUTDOWN_TIMEOUT_MS must be above 0 in Kubernetes: the kubelet kills a pod at terminationGracePeriodSeconds anyway" }}{{ end }}
{{- add (int .Values.termination.preStopSleepSeconds) (div (add $ms 999) 1000) (int .Values.termination.marginSeconds) }}
{{- end }}

{{/* CloudNativePG: the password of the application owner, from the secret the operator makes. */}}
{{- define "catalogue-api.cnpgPasswordVar" -}}CATALOGUE_CNPG_PASSWORD{{- end }}

{{/* postgresql:// URL of a CloudNativePG host, its password taken from the variable above by Kubernetes' $(VAR) expansion. */}}
{{- define "catalogue-api.cnpgUrl" -}}
{{- $c := .root.Values.cloudnativepg -}}
postgresql://{{ $c.owner }}:$({{ include "catalogue-api.cnpgPasswordVar" . }})@{{ .host }}:5432/{{ $c.database }}
{{- end }}

{{- define "catalogue-api.cnpgInstanceService" -}}
{{- printf "%s-instance-%v" .root.Values.cloudnativepg.cluster .serial }}
{{- end }}

{{/*
Database environment built from a CloudNativePG cluster. `forJobs`: the
migrations and the ETL, which always go straight to the primary (-rw).
*/}}
{{- define "catalogue-api.cnpgEnv" -}}
{{- $c := .root.Values.cloudnativepg }}
{{- if $c.cluster }}
- name: {{ include "catalogue-api.cnpgPasswordVar" . }}
  valueFrom:
    secretKeyRef:
      name: {{ $c.cluster }}-app
      key: password
{{- $primary := printf "%s-rw" $c.cluster }}
- name: DATABASE_URL
  value: {{ include "catalogue-api.cnpgUrl" (dict "root" .root "host" (ternary $primary (default $primary $c.pooler) .forJobs)) | quote }}
{{- if $c.pooler }}
# What needs a session (migrations' advisory lock, the change feed's LISTEN,
# the sidecar's sync lock): straight to the primary, not through the pooler.
- name: DATABASE_DIRECT_URL
  value: {{ include "catalogue-api.cnpgUrl" (dict "root" .root "host" $primary) | quote }}
{{- end }}
{{- if not .forJobs }}
{{- $replicas := list }}
{{- range $c.instanceSerials }}
{{- $replicas = append $replicas (include "catalogue-api.cnpgUrl" (dict "root" $.root "host" (include "catalogue-api.cnpgInstanceService" (dict "root" $.root "serial" .)))) }}
{{- end }}
{{- if $replicas }}
- name: DATABASE_REPLICA_URLS
  value: {{ join "," $replicas | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* Fails the render when nothing says where Postgres is (the image would try to start an embedded one). */}}
{{- define "catalogue-api.checkDatabase" -}}
{{- if not (or .Values.existingSecret .Values.secrets.DATABASE_URL .Values.cloudnativepg.cluster) }}
{{- fail "no database: set secrets.DATABASE_URL, existingSecret (a Secret with a DATABASE_URL key), or cloudnativepg.cluster" }}
{{- end }}
{{- if and .Values.cloudnativepg.cluster (or .Values.secrets.DATABASE_URL .Values.secrets.DATABASE_REPLICA_URLS) }}
{{- fail "cloudnativepg.cluster builds DATABASE_URL and DATABASE_REPLICA_URLS itself: remove them from secrets" }}
{{- end }}
{{- end }}

{{- define "catalogue-api.hasSecret" -}}
{{- if or .Values.existingSecret .Values.secrets }}true{{ end }}
{{- end }}

{{/*
The environment of every container running the image: the ConfigMap and the
Secret as variables, then the CloudNativePG variables (which win over both).
The hook Jobs run before the ConfigMap exists, so they get the same settings
inline (`inline`), from the same values; the chart's Secret is itself a hook
made before them.
*/}}
{{- define "catalogue-api.env" -}}
{{- $root := .root }}
{{- $cnpg := include "catalogue-api.cnpgEnv" (dict "root" $root "forJobs" .inline) | trim }}
{{- $hasSecret := include "catalogue-api.hasSecret" $root }}
{{- if or (not .inline) $hasSecret }}
envFrom:
{{- if not .inline }}
  - configMapRef:
      name: {{ include "catalogue-api.fullname" $root }}
{{- end }}
{{- if $hasSecret }}
  - secretRef:
      name: {{ include "catalogue-api.secretName" $root }}
{{- end }}
{{- end }}
{{- if or .inline $cnpg }}
env:
{{- if .inline }}
{{- range $name, $value := $root.Values.config }}
  - name: {{ $name }}
    value: {{ $value | toString | quote }}
{{- end }}
{{- end }}
{{- if $cnpg }}
{{- $cnpg | nindent 2 }}
{{- end }}
{{- end }}
{{- end }}
