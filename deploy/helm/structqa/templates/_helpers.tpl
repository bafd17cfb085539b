{{- define "structqa.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "structqa.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "structqa.labels" -}}
{{ include "structqa.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "structqa.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "structqa.fullname" .) -}}
{{- end -}}

{{- define "structqa.image" -}}
{{ printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- end -}}

{{/* The environment every structqa container gets: settings, then the three secrets. */}}
{{- define "structqa.env" -}}
- name: HOST
  value: "0.0.0.0"
- name: PORT
  value: "8080"
- name: STRUCTQA_DATA_DIR
  value: /var/lib/structqa
- name: STRUCTQA_THREADS
  value: {{ .Values.config.threads | quote }}
- name: STRUCTQA_REDIS_FAILURE_MODE
  value: {{ .Values.config.redisFailureMode | quote }}
- name: STRUCTQA_SHUTDOWN_GRACE_MS
  value: {{ .Values.config.shutdownGraceMs | quote }}
- name: STRUCTQA_RESERVATION_TTL_MS
  value: {{ .Values.config.reservationTtlMs | quote }}
- name: LOG_LEVEL
  value: {{ .Values.config.logLevel | quote }}
{{- range $name, $value := .Values.extraEnv }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "structqa.secretName" . }}
      key: database-url
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "structqa.secretName" . }}
      key: redis-url
- name: STRUCTQA_ADMIN_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "structqa.secretName" . }}
      key: admin-token
{{- end -}}

{{- define "structqa.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "structqa.containerSecurityContext" -}}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: ["ALL"]
{{- end -}}
