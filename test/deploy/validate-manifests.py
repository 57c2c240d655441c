"""Checks Kubernetes manifests against their schemas, offline.

Reads the multi-document YAML `helm template` prints on standard input and
writes one JSON object: {"documents": [...], "problems": [...]}, where each
problem names the resource and what is wrong. Built-in kinds are checked with
kubernetes-validate (PyPI: the schemas of every Kubernetes release, strict:
unknown fields are errors) for each --kubernetes-version (`latest`: the
newest it has); custom resources with the openAPIV3Schema of their CustomResourceDefinition (--crd, a YAML
file), made strict the same way: an object that lists its properties takes
no others, as `kubectl apply` (field validation Strict) would refuse them.
A kind with no schema is a problem too.
"""
import argparse
import functools
import json
import sys

import jsonschema
import kubernetes_validate
import yaml
import kubernetes_validate.utils

# Each validation reads its schema files again (_definitions.json is megabytes): once is enough.
kubernetes_validate.utils.schema_contents = functools.lru_cache(maxsize=None)(kubernetes_validate.utils.schema_contents)
LOADER = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


def strict(schema):
    """The schema with additionalProperties: false wherever properties are listed and nothing else is allowed."""
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if ('properties' in schema and 'additionalProperties' not in schema
                and not schema.get('x-kubernetes-preserve-unknown-fields')):
            schema['additionalProperties'] = False
        return schema
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    return schema


def crd_schemas(paths):
    """(apiVersion, kind) -> JSON schema, from CustomResourceDefinition files."""
    schemas = {}
    for path in paths:
        with open(path) as file:
            for crd in yaml.load_all(file, Loader=LOADER):
                if not crd or crd.get('kind') != 'CustomResourceDefinition':
                    continue
                group, kind = crd['spec']['group'], crd['spec']['names']['kind']
                for version in crd['spec']['versions']:
                    schema = version.get('schema', {}).get('openAPIV3Schema')
                    if schema:
                        schemas[(f"{group}/{version['name']}", kind)] = strict(schema)
    return schemas


def describe(error):
    where = '.'.join(str(part) for part in error.absolute_path) or '(top)'
    return f'{where}: {error.message}'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--kubernetes-version', action='append', required=True)
    parser.add_argument('--crd', action='append', default=[])
    args = parser.parse_args()
    versions = [kubernetes_validate.latest_version() if v == 'latest' else v for v in args.kubernetes_version]
    custom = crd_schemas(args.crd)
    documents = [doc for doc in yaml.load_all(sys.stdin, Loader=LOADER) if doc]
    problems = []
    for doc in documents:
        name = f"{doc.get('kind')}/{doc.get('metadata', {}).get('name')}"
        key = (doc.get('apiVersion'), doc.get('kind'))
        if key in custom:
            errors = sorted(jsonschema.Draft7Validator(custom[key]).iter_errors(doc), key=lambda e: list(e.absolute_path))
            problems += [f'{name} ({key[0]}): {describe(error)}' for error in errors]
            continue
        for version in versions:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.SchemaNotFoundError as error:
                problems.append(f'{name}: {error.message}')
            except kubernetes_validate.ValidationError as error:
                problems.append(f'{name} (Kubernetes {version}): {describe(error)}')
    json.dump({'documents': documents, 'problems': problems}, sys.stdout)


if __name__ == '__main__':
    main()
