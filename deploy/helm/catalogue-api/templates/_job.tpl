{{/*
A pod spec running the image once (the migrations, the ETL): the same
settings as the API (inline: see catalogue-api.env), straight to the primary.
Arguments: root, name, command (a list), resources, and optional
volumes/volumeMounts (YAML text).
*/}}
{{- define "catalogue-api.jobPod" -}}
{{- $root := .root }}
restartPolicy: Never
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
containers:
  - name: {{ .name }}
    image: {{ include "catalogue-api.image" $root | quote }}
    imagePullPolicy: {{ $root.Values.image.pullPolicy }}
    command: {{ toJson .command }}
    {{- include "catalogue-api.env" (dict "root" $root "inline" true) | trim | nindent 4 }}
    resources:
      {{- toYaml .resources | nindent 6 }}
    securityContext:
      {{- toYaml $root.Values.securityContext | nindent 6 }}
    volumeMounts:
      - name: tmp
        mountPath: /tmp
      {{- with .volumeMounts }}
      {{- . | nindent 6 }}
      {{- end }}
volumes:
  - name: tmp
    emptyDir: {}
  {{- with .volumes }}
  {{- . | nindent 2 }}
  {{- end }}
{{- with $root.Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $root.Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
