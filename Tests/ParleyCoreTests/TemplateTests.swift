import Testing
import ParleyCore

@Suite struct TemplateTests {
    @Test func rendersPathsAndKeepsLiterals() throws {
        let template = try Template("Hi {{user.name}}, order {{ vars.order_id }}!")
        #expect(template.variables == ["user.name", "vars.order_id"])
        #expect(template.render(["user.name": "Alice", "vars.order_id": "123456"]) == "Hi Alice, order 123456!")
    }

    @Test func valuesAreNeverReparsed() throws {
        let template = try Template("You said: {{message.text}}")
        #expect(template.render(["message.text": "{{bot.secret}}"]) == "You said: {{bot.secret}}")
    }

    @Test func unknownPathsRenderEmpty() throws {
        #expect(try Template("[{{x}}]").render([:]) == "[]")
        #expect(try Template("plain").isConstant)
    }

    @Test(arguments: [("a {{b", "unclosed '{{'", 2), ("{{}}", "invalid placeholder '{{}}': expected a dotted name like user.name", 0),
                      ("x {{a..b}}", "invalid placeholder '{{a..b}}': expected a dotted name like user.name", 2)])
    func malformedTemplatesReportTheOffset(source: String, message: String, offset: Int) {
        #expect(throws: TemplateError(message: message, offset: offset)) { try Template(source) }
    }

    @Test func offsetsCountCharactersInNonASCIIText() throws {
        let template = try Template("Grüße 👋 {{user.name}}")
        #expect(template.segments == [.literal("Grüße 👋 "), .variable(path: "user.name", offset: 8)])
        #expect(throws: TemplateError(message: "unclosed '{{'", offset: 3)) { try Template("Ünï{{x") }
        #expect(try Template("{{\tvars.name_1-x }}").variables == ["vars.name_1-x"])
        #expect(try Template("{{ 名前 }}").variables == ["名前"])
    }

    @Test(arguments: ["Hi {{user.name}}, {{ help }}", "Grüße 👋 {{user.name}}\r\n{{x}}", "no placeholder", "{{a}}{{b.c}}"])
    func placeholdersAreTheVariableSegments(source: String) throws {
        let fromSegments = try Template(source).segments.compactMap { segment -> String? in
            if case .variable(let path, let offset) = segment { return "\(path)@\(offset)" } else { return nil }
        }
        #expect(try Template.placeholders(in: source).map { "\($0.path)@\($0.offset)" } == fromSegments)
    }

    @Test func placeholdersThrowAsParsingDoes() {
        #expect(throws: TemplateError(message: "unclosed '{{'", offset: 7)) { try Template.placeholders(in: "{{ok}} {{x") }
        #expect(throws: TemplateError(message: "invalid placeholder '{{a b}}': expected a dotted name like user.name", offset: 3)) {
            try Template.placeholders(in: "Ü: {{a b}}")
        }
    }

    @Test func offsetsCountALineBreakCRLFAsOneCharacter() throws {
        // ASCII text counts one character per byte, except CR LF, which is one character.
        #expect(try Template("ab {{x}}\r\n{{y}}").segments
            == [.literal("ab "), .variable(path: "x", offset: 3), .literal("\r\n"), .variable(path: "y", offset: 9)])
        #expect(throws: TemplateError(message: "unclosed '{{'", offset: 2)) { try Template("a\r\n{{x") }
    }
}
