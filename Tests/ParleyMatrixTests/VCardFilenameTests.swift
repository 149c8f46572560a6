import Testing
@testable import ParleyMatrix

/// The name of the `.vcf` file (`attachVCardFile`) is what the customer's client saves it as.
@Suite struct VCardFilenameTests {
    @Test(arguments: [
        ("Zoë Ångström-Łukasiewicz", "Zoë Ångström-Łukasiewicz.vcf"),
        ("王小明", "王小明.vcf"),
        ("a/b:c\\d*e?\"f<g>h|i", "a_b_c_d_e__f_g_h_i.vcf"),
        ("", "contact.vcf"),
        // Control characters went into the name as they were (Synapse serves them back).
        ("Ann\tLee\u{0}", "Ann_Lee_.vcf"),
        // A right-to-left override displays "Ann‮fdp.exe.vcf" as "Annfcv.exe.pdf".
        ("Ann\u{202E}fdp.exe", "Ann_fdp.exe.vcf"),
        // A leading dot hides the file; a name of spaces is no name.
        ("  .hidden  ", "hidden.vcf"),
        ("   ", "contact.vcf"),
    ])
    func nameOfTheFile(name: String, expected: String) {
        #expect(MatrixTransport.vCardFilename(name) == expected)
    }

    /// File systems allow 255 octets per name; 60 Characters of emoji sequences took up to 1,500.
    @Test func longNamesAreCutBetweenCharactersWithin120Octets() {
        let family = "👨‍👩‍👧‍👦"
        #expect(family.utf8.count == 25)
        #expect(MatrixTransport.vCardFilename(String(repeating: family, count: 60)) == String(repeating: family, count: 4) + ".vcf")
        #expect(MatrixTransport.vCardFilename(String(repeating: "x", count: 100)) == String(repeating: "x", count: 60) + ".vcf")
    }
}
