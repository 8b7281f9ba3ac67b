"""Runs the Python verifier of docs/signing.md over docs/signing-vectors.json and prints, as JSON,
the verdict it reaches on each response case and license file case and the x-signature it makes
for each request case (tests/signing/python-verifier.test.ts compares them with the expected ones).

Usage: python3 check_vectors.py <the verifier's code, as a file> <signing-vectors.json>
"""
import json
import sys

verifier = {}
with open(sys.argv[1], encoding="utf-8") as source:
    exec(compile(source.read(), "docs/signing.md (python-verifier)", "exec"), verifier)
with open(sys.argv[2], encoding="utf-8") as file:
    vectors = json.load(file)

keys = vectors["keys"]["response_signing"]


def response_verdict(case):
    pinned = verifier["pin"]([keys[name]["public_key_base64"] for name in case["pinned_keys"]])
    request = {
        "method": case["request"]["method"],
        "path_and_query": case["request"]["path_and_query"],
        "nonce": case["request"]["x_nonce"],
        "signature": case["request"]["x_signature"],
    }
    response = case["response"]
    body = response["body"].encode("utf-8")
    try:
        verifier["verify_response"](pinned, vectors["application_id"], request, response["status"], response["headers"], body, case["download"])
        if case["download"] and response["status"] == 200:
            for _ in verifier["verify_download"](response["headers"]["x-content-sha256"], [body[:10], body[10:]]):
                pass
        return "valid"
    except verifier["SignatureError"] as error:
        return error.code


def request_signature(case):
    r = case["request"]
    headers = verifier["sign_request"](
        vectors["keys"]["request_signing_key_base64"],
        r["method"],
        r["path_and_query"],
        r["x_api_key"],
        r["credential_headers"],
        r["body"].encode("utf-8"),
        timestamp=r["x_timestamp"],
        nonce=r["x_nonce"],
    )
    return headers["x-signature"]


def license_verdict(case):
    pinned = verifier["pin"]([keys[name]["public_key_base64"] for name in case["pinned_keys"]])
    try:
        verifier["verify_license_file"](pinned, case["application_id"], case["license_file"], case["hardware_id"], case["now"], case["newest_signed_time"])
        return "valid"
    except verifier["LicenseFileError"] as error:
        return error.code


json.dump(
    {
        "responses": {case["name"]: response_verdict(case) for case in vectors["response_cases"]},
        "requests": {case["name"]: request_signature(case) for case in vectors["request_cases"]},
        "licenses": {case["name"]: license_verdict(case) for case in vectors["license_file_cases"]},
    },
    sys.stdout,
)
